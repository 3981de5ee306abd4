/* tfpi_app.c - a user's program built against an installed tfpi with
 * nothing but `pkg-config --cflags --libs tfpi` (tests/cli/test_install.sh):
 * labels an image with a MobileNet and prints "VERSION INDEX SCORE" of the
 * top class, SCORE as label_image prints it. */
#include <stdio.h>
#include <stdlib.h>

#include <tfpi.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s GRAPH.pb IMAGE\n", argv[0]);
        return 2;
    }
    tfpi_status status;
    tfpi_image image;
    tfpi_graph *graph = tfpi_graph_load_file(argv[1], &status);
    if (!graph || tfpi_image_load(argv[2], &image, &status) != TFPI_OK) {
        fprintf(stderr, "error: %s\n", status.message);
        tfpi_graph_free(graph);
        return 1;
    }
    const int64_t dims[4] = {1, 224, 224, 3};
    tfpi_tensor *input = tfpi_tensor_new(TFPI_FLOAT, dims, 4, &status), *scores = NULL;
    tfpi_session *session = tfpi_session_new(graph, NULL, &status);
    int rc = 1;
    if (input && session) {
        tfpi_image_to_input(&image, 224, 224, 127.5f, 127.5f, tfpi_tensor_data(input));
        const char *feed = "input", *fetch = "MobilenetV1/Predictions/Reshape_1";
        rc = tfpi_session_run(session, &feed, &input, 1, &fetch, &scores, 1, &status) != TFPI_OK;
    }
    if (rc == 0) {
        const float *p = tfpi_tensor_const_data(scores);
        int64_t best = 0;
        for (int64_t i = 1; i < tfpi_tensor_num_elements(scores); i++)
            best = p[i] > p[best] ? i : best;
        printf("%s %lld %.6f\n", tfpi_version(), (long long)best, p[best]);
    } else {
        fprintf(stderr, "error: %s\n", status.message);
    }
    tfpi_tensor_free(scores);
    tfpi_tensor_free(input);
    tfpi_session_free(session);
    tfpi_image_free(&image);
    tfpi_graph_free(graph);
    return rc;
}
