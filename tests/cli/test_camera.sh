# test_camera.sh - the camera example without a camera: the files source
# end to end (labels equal label_image's, de-duplication, thresholds), PPM
# frames on stdin (a file, a pipe, SIGTERM/SIGINT mid-stream), --speak, every
# bad input as one error line, and the V4L2 back end against the LD_PRELOAD
# fake webcam tests/fakes/fake_v4l2.c (native builds only).
. tests/cli/lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
MODEL="--graph=$TD/mobilenet_v1_0.25_224/frozen_graph.pb --labels=$TD/mobilenet_v1_0.25_224/labels.txt"
PLATES=$TD/tf_reference/mobilenet_v1_0.25_128_plates
FAKE_V4L2=$BIN/../lib/fake_v4l2.so
# No repeats within a test, however slowly it runs (valgrind, qemu).
NO_REPEAT=--repeat_after=3600

# ppm KIND: a 128x96 black and white test frame on stdout. MobileNet calls
# the checkerboard "window screen" (0.78) and the stripes "radiator" (0.63).
ppm() {
    LC_ALL=C awk -v kind="$1" 'BEGIN {
        printf "P6\n128 96\n255\n"
        for (y = 0; y < 96; y++) for (x = 0; x < 128; x++) {
            on = kind == "checker" ? (int(x / 8) + int(y / 8)) % 2 : int(x / 6) % 2
            printf "%c%c%c", on * 255, on * 255, on * 255
        } }'
}

# top_label IMAGE: label_image's top label for an image, as camera says it
# (the first name of a synonym list).
top_label() {
    # shellcheck disable=SC2086
    $QEMU "$BIN/label_image" $MODEL --image="$1" | head -n 1 | sed -E 's/ \([0-9]+\): [^ ]+$//; s/,.*//'
}

# expect_stdout NAME EXPECTED_FILE TOOL ARGS...: exit 0 and stdout equal to the file.
expect_stdout() {
    name=$1 expected=$2
    shift 2
    run_tool "$@"
    if [ "$rc" -ne 0 ]; then
        cli_result "$name" no "exit status $rc: $(tail -c 300 "$CLI_TMP/err")"
    elif ! cmp -s "$CLI_TMP/out" "$expected"; then
        cli_result "$name" no "stdout '$(tr '\n' '|' <"$CLI_TMP/out")', expected '$(tr '\n' '|' <"$expected")'"
    else
        cli_result "$name" yes ""
    fi
}

# wait_for_frames ERR N: waits (up to 60 s) until ERR holds N "frame" lines.
# Remove ERR before starting the program, or an old one may already hold them.
wait_for_frames() {
    tries=0
    while [ $tries -lt 600 ]; do
        count=$(cat "$1" 2>/dev/null | grep -c '^frame')
        [ "$count" -ge "$2" ] && return
        sleep 0.1
        tries=$((tries + 1))
    done
}

# expect_clean_stop NAME PID SIGNAL: sends SIGNAL once frames flow; exit 0
# with the closing summary line.
expect_clean_stop() {
    name=$1 pid=$2
    wait_for_frames "$CLI_TMP/err" 3
    kill "-$3" "$pid"
    wait "$pid"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        cli_result "$name" no "exit status $rc: $(tail -c 300 "$CLI_TMP/err")"
    elif ! tail -n 1 "$CLI_TMP/err" | grep -qE '^[0-9]+ frames labelled in'; then
        cli_result "$name" no "no summary line: $(tail -c 300 "$CLI_TMP/err")"
    else
        cli_result "$name" yes ""
    fi
}

ppm checker >"$CLI_TMP/checker.ppm"
ppm stripes >"$CLI_TMP/stripes.ppm"
mkdir "$CLI_TMP/scene" "$CLI_TMP/photos"
for frame in 1:checker 2:checker 3:stripes 4:stripes 5:checker; do
    cp "$CLI_TMP/${frame#*:}.ppm" "$CLI_TMP/scene/${frame%%:*}.ppm"
done
cat "$CLI_TMP"/scene/*.ppm >"$CLI_TMP/scene.ppm"
printf 'window screen\nradiator\nwindow screen\n' >"$CLI_TMP/scene.labels"
printf 'window screen\nwindow screen\nradiator\nradiator\nwindow screen\n' >"$CLI_TMP/scene.every"
echo "window screen" >"$CLI_TMP/checker.label"

# Photos, in name order: grace_hopper and six of TensorFlow's plate photos.
i=0
for photo in "$TD/images/grace_hopper.jpg" "$PLATES"/Indiana_*.jpg "$PLATES"/*.png; do
    i=$((i + 1))
    ln -s "$(cd "$(dirname "$photo")" && pwd)/$(basename "$photo")" "$CLI_TMP/photos/$i-$(basename "$photo")"
    top_label "$photo" >>"$CLI_TMP/photos.labels"
done
top_label "$CLI_TMP"/photos/*.png >"$CLI_TMP/png.label"

# shellcheck disable=SC2086
{
# ---- the files source ----------------------------------------------------------
expect_stdout "photos: one line per frame, label_image's top label" "$CLI_TMP/photos.labels" \
    camera $MODEL --frames_from="$CLI_TMP/photos" --print_threshold=0 --repeat_after=0
expect_stdout "glob of frames" "$CLI_TMP/png.label" \
    camera $MODEL --frames_from="$CLI_TMP/photos/*.png" --print_threshold=0
expect_stdout "a label is announced when it changes" "$CLI_TMP/scene.labels" \
    camera $MODEL --frames_from="$CLI_TMP/scene" $NO_REPEAT
frames=$(grep -c '^frame [0-9]' "$CLI_TMP/err")
cli_result "top 5 of every frame on stderr" "$([ "$frames" -eq 5 ] && echo yes)" "$frames frame lines"
cli_result "a summary line at the end" \
    "$(tail -n 1 "$CLI_TMP/err" | grep -qE '^5 frames labelled in .* fps\), 3 announced$' && echo yes)" \
    "$(tail -n 1 "$CLI_TMP/err")"
expect_stdout "--repeat_after=0 announces every frame" "$CLI_TMP/scene.every" \
    camera $MODEL --frames_from="$CLI_TMP/scene" --repeat_after=0
expect_stdout "--print_threshold=70 (percent)" "$CLI_TMP/checker.label" \
    camera $MODEL --frames_from="$CLI_TMP/scene" --print_threshold=70 $NO_REPEAT
expect_stdout "--print_threshold=0.7 (fraction)" "$CLI_TMP/checker.label" \
    camera $MODEL --frames_from="$CLI_TMP/scene" --print_threshold=0.7 $NO_REPEAT
expect_stdout "--frames=2 stops after two frames" "$CLI_TMP/checker.label" \
    camera $MODEL --frames_from="$CLI_TMP/scene" --frames=2 $NO_REPEAT

# ---- PPM frames on stdin -------------------------------------------------------
expect_stdout "stdin from a file: every frame in order" "$CLI_TMP/scene.labels" \
    camera $MODEL --source=files $NO_REPEAT <"$CLI_TMP/scene.ppm"
cat "$CLI_TMP/scene.ppm" | $QEMU "$BIN/camera" $MODEL --source=files --repeat_after=0 \
    >"$CLI_TMP/out" 2>"$CLI_TMP/err"
rc=$?
labelled=$(grep -c '^frame [0-9]' "$CLI_TMP/err")
cli_result "stdin from a pipe: the newest frame, stale ones dropped" \
    "$([ $rc -eq 0 ] && [ "$labelled" -ge 1 ] && [ "$labelled" -le 5 ] &&
        [ "$(tail -n 1 "$CLI_TMP/out")" = "window screen" ] && echo yes)" \
    "exit $rc, $labelled frames, last '$(tail -n 1 "$CLI_TMP/out")'"

for signal in TERM INT; do
    mkfifo "$CLI_TMP/stream.$signal"
    (while cat "$CLI_TMP/checker.ppm"; do sleep 0.02; done) >"$CLI_TMP/stream.$signal" 2>/dev/null &
    producer=$!
    rm -f "$CLI_TMP/err"
    $QEMU "$BIN/camera" $MODEL --source=files $NO_REPEAT <"$CLI_TMP/stream.$signal" >"$CLI_TMP/out" 2>"$CLI_TMP/err" &
    expect_clean_stop "SIG$signal during a live stdin stream: exit 0" $! $signal
    kill "$producer" 2>/dev/null
    wait "$producer" 2>/dev/null
    cli_result "live stream: a still scene is announced once" \
        "$(cmp -s "$CLI_TMP/out" "$CLI_TMP/checker.label" && echo yes)" "$(tr '\n' '|' <"$CLI_TMP/out")"
done

# ---- --speak -------------------------------------------------------------------
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >>"%s"\necho "TTS chatter"\n' "$CLI_TMP/spoken" >"$CLI_TMP/say.sh"
chmod +x "$CLI_TMP/say.sh"
expect_stdout "--speak: stdout stays labels only" "$CLI_TMP/scene.labels" \
    camera $MODEL --frames_from="$CLI_TMP/scene" $NO_REPEAT --speak --speak_cmd="$CLI_TMP/say.sh"
cli_result "--speak: the command ran once per announced label" \
    "$(cmp -s "$CLI_TMP/spoken" "$CLI_TMP/scene.labels" && echo yes)" \
    "spoken: '$(tr '\n' '|' <"$CLI_TMP/spoken" 2>/dev/null)'"

# ---- bad input -----------------------------------------------------------------
echo "not an image" >"$CLI_TMP/text.jpg"
mkdir "$CLI_TMP/bad"
cp "$CLI_TMP/text.jpg" "$CLI_TMP/bad/1.jpg"
head -c 1000 "$CLI_TMP/checker.ppm" >"$CLI_TMP/truncated.ppm"
expect_error "unreadable frame" "bad/1.jpg" camera $MODEL --frames_from="$CLI_TMP/bad"
expect_error "no frames there" "nothere: no frames found" camera $MODEL --frames_from="$CLI_TMP/nothere"
expect_error "truncated frame on stdin" "stdin: frame 1 is truncated" \
    camera $MODEL --source=files <"$CLI_TMP/truncated.ppm"
expect_error "not PPM on stdin" "stdin frame 1: not a binary PPM" \
    camera $MODEL --source=files <"$CLI_TMP/text.jpg"
expect_error "empty stdin" "stdin: no frames" camera $MODEL --source=files </dev/null
[ -e /dev/video9 ] ||
    expect_error "missing device" "/dev/video9: no such device" camera $MODEL --device=/dev/video9
expect_error "not a camera" "/dev/null: not a V4L2 video device" camera $MODEL --device=/dev/null
if ! ls /dev/video* /dev/media* >/dev/null 2>&1; then
    expect_error "libcamera without a camera" "libcamera: (no camera found|not in this build)" \
        camera $MODEL --source=libcamera
    expect_error "auto without a camera" "no camera found: libcamera.*; /dev/video0: no such device" \
        camera $MODEL
fi
expect_error "unknown source" "invalid value 'webcam' for flag --source" camera --source=webcam
expect_error "threshold out of range" "--print_threshold must be" camera --print_threshold=150
expect_error "negative repeat" "--repeat_after must be" camera --repeat_after=-1
expect_error "frames_from with v4l2" "--frames_from needs --source=files" \
    camera --source=v4l2 --frames_from="$CLI_TMP/scene"
expect_error "device with files" "--device needs --source=v4l2" camera --source=files --device=/dev/video0
expect_error "missing TTS program" "'no-such-tts' is not installed" \
    camera $MODEL --frames_from="$CLI_TMP/scene" --speak_cmd="no-such-tts -t"
expect_error "missing model" "--graph: .*nothere.pb" camera --graph="$CLI_TMP/nothere.pb"

# ---- V4L2 against the fake webcam -------------------------------------------------
if [ -z "$QEMU" ] && [ -f "$FAKE_V4L2" ]; then
    # ASan (SANITIZE=1) would insist on coming before the preloaded fake.
    export LD_PRELOAD="$FAKE_V4L2" ASAN_OPTIONS=verify_asan_link_order=0 \
        FAKE_V4L2_PATH="$CLI_TMP/video0" FAKE_V4L2_REPORT="$CLI_TMP/report"
    V4L2="$MODEL --device=$CLI_TMP/video0"
    # expect_released NAME: the fake saw every buffer unmapped and streaming off.
    expect_released() {
        cli_result "$1: camera released" "$(grep -q '^mapped=0 streaming=0' "$CLI_TMP/report" && echo yes)" \
            "report: $(cat "$CLI_TMP/report" 2>/dev/null)"
    }
    # webcam FORMAT FRAME: what the fake webcam offers next.
    webcam() {
        export FAKE_V4L2_FORMAT="$1" FAKE_V4L2_FRAME="$2"
    }
    top_label "$TD/images/grace_hopper.jpg" >"$CLI_TMP/grace.label"
    webcam MJPG "$TD/images/grace_hopper.jpg"
    expect_stdout "v4l2 MJPEG: label_image's label" "$CLI_TMP/grace.label" \
        camera $V4L2 --frames=3 --print_threshold=0 $NO_REPEAT
    expect_released "v4l2 MJPEG"
    dequeued=$(sed -E 's/.*dequeued=([0-9]+).*/\1/' "$CLI_TMP/report")
    cli_result "v4l2: finished buffers drained, newest labelled" "$([ "$dequeued" -gt 3 ] && echo yes)" \
        "$dequeued buffers dequeued for 3 frames"
    webcam YUYV "$CLI_TMP/checker.ppm"
    expect_stdout "v4l2 YUYV (padded rows)" "$CLI_TMP/checker.label" camera $V4L2 --frames=3 $NO_REPEAT
    expect_released "v4l2 YUYV"
    echo radiator >"$CLI_TMP/stripes.label"
    webcam RGB3 "$CLI_TMP/stripes.ppm"
    expect_stdout "v4l2 RGB24 (padded rows)" "$CLI_TMP/stripes.label" camera $V4L2 --frames=3 \
        $NO_REPEAT
    webcam GREY "$CLI_TMP/checker.ppm"
    expect_error "v4l2 without a usable format" "video0: offers none of .*it has: GREY" camera $V4L2
    webcam YUYV "$CLI_TMP/checker.ppm"
    export FAKE_V4L2_BUSY=1
    expect_error "v4l2 device busy" "video0: busy: another program is using the camera" camera $V4L2
    unset FAKE_V4L2_BUSY
    rm -f "$CLI_TMP/report" "$CLI_TMP/err"
    "$BIN/camera" $V4L2 >"$CLI_TMP/out" 2>"$CLI_TMP/err" &
    expect_clean_stop "SIGTERM while streaming from V4L2: exit 0" $! TERM
    expect_released "v4l2 SIGTERM"
    unset LD_PRELOAD ASAN_OPTIONS
fi
}
cli_summary
