#!/bin/sh
# test_source_layers.sh - checks the include rules of the source tree (README,
# "How the code is organised"): each folder under src/ includes only its own
# headers and those of the folders below it in
#     core < image < graph < model < kernel < compute < plan < run,
# kernels/ reaches up to compute/, tools/ up to model/, and pi_examples/
# only the public tfpi.h. At most two .c files sit at the top of src/.
. tests/cli/lib.sh
if [ -n "${QEMU:-}" ] || [ -n "${SANITIZE:-}" ]; then
    echo "skip: the source tree is checked by host builds (this run: ${QEMU:-$TARGET} ${SANITIZE:+with sanitizers})"
    cli_summary
    exit 0
fi

LAYERS="core image graph model kernel compute plan run"

# rank LAYER: position of a src/ folder in LAYERS (1 = lowest), 0 if none.
rank() {
    i=1
    for l in $LAYERS; do
        [ "$l" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo 0
}

# src_includes FILE...: "FILE FOLDER" for every #include "FOLDER/x.h" of a src/ folder.
src_includes() {
    for f in "$@"; do
        sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\)/[^"]*".*|\1|p' "$f" |
            while read -r dir; do
                [ -d "src/$dir" ] && echo "$f $dir"
            done
    done
}

# check_ceiling NAME CEILING FILES...: no file includes a folder above CEILING.
check_ceiling() {
    name=$1 ceiling=$(rank "$2")
    shift 2
    bad=$(src_includes "$@" | while read -r f dir; do
        [ "$(rank "$dir")" -gt "$ceiling" ] && echo "$f includes $dir/"
    done)
    if [ -z "$bad" ]; then cli_result "$name" yes; else cli_result "$name" no "$(echo "$bad" | head -n 5)"; fi
}

# Every folder under src/ is a known layer and includes only lower or equal ones.
unknown=""
for d in src/*/; do
    d=$(basename "$d")
    [ "$(rank "$d")" -eq 0 ] && unknown="$unknown $d"
done
if [ -z "$unknown" ]; then cli_result "every src/ folder is a layer" yes
else cli_result "every src/ folder is a layer" no "not in the layer list:$unknown"; fi

for layer in $LAYERS; do
    [ -d "src/$layer" ] || continue
    # shellcheck disable=SC2046
    check_ceiling "src/$layer/ includes no higher layer" "$layer" $(find "src/$layer" -name '*.[ch]')
done
# shellcheck disable=SC2046
check_ceiling "kernels/ reach at most src/compute/" compute $(find kernels -name '*.c')
# shellcheck disable=SC2046
check_ceiling "tools/ reach at most src/model/" model $(find tools -name '*.[ch]')

# pi_examples: no src/ header but the public one.
bad=$(grep -rn '#[[:space:]]*include[[:space:]]*"\(core\|image\|graph\|model\|kernel\|compute\|plan\|run\)/' pi_examples)
if [ -z "$bad" ]; then cli_result "pi_examples/ include only tfpi.h from src/" yes
else cli_result "pi_examples/ include only tfpi.h from src/" no "$(echo "$bad" | head -n 5)"; fi

# Headers are included by their folder path, so the rules above see them all.
bad=""
for f in $(find src kernels tools pi_examples -name '*.[ch]' -o -name '*.cpp'); do
    for h in $(sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_0-9]*\.h\)".*|\1|p' "$f"); do
        [ "$h" = tfpi.h ] && continue
        [ -n "$(find src -mindepth 2 -name "$h")" ] && bad="$bad $f:$h"
    done
done
if [ -z "$bad" ]; then cli_result "src/ headers are included as FOLDER/NAME.h" yes
else cli_result "src/ headers are included as FOLDER/NAME.h" no "$bad"; fi

top=$(find src -maxdepth 1 -name '*.c' | wc -l)
if [ "$top" -le 2 ]; then cli_result "at most two .c files at the top of src/" yes
else cli_result "at most two .c files at the top of src/" no "$top files"; fi

cli_summary
