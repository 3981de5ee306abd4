/* object_detector.h - runs a TensorFlow Object Detection API graph
 * (frozen_inference_graph.pb: uint8 image_tensor in; detection_boxes,
 * detection_scores, detection_classes, num_detections out) on one RGB image
 * and lists the detections above a score threshold in pixel coordinates;
 * also a .tflite SSD with TFLite_Detection_PostProcess.
 * Shared by the detect and camera examples. */
#ifndef TFPI_OBJECT_DETECTOR_H
#define TFPI_OBJECT_DETECTOR_H

#include "labels.h"
#include "tfpi.h"

typedef struct detection {
    int class_id;      /* detection_classes: 1-based for COCO/VOC exports */
    char label[128];   /* from the labels file ("unknown" if absent), or "class N" without one */
    float score;
    float ymin, xmin, ymax, xmax; /* pixels of the image given */
} detection;

/* Runs session (on graph) on image (fed as image_tensor [1,h,w,3] uint8;
 * a .tflite SSD's input gets it resized to its size, and its
 * TFLite_Detection_PostProcess outputs are read the same way, classes
 * 0-based as the model gives them) and fills out[0..max) with the
 * detections scoring at least threshold, best first; returns their number,
 * or -1 with status set. */
int detect_objects(const tfpi_graph *graph, tfpi_session *session, const tfpi_image *image, const label_list *labels,
                   float threshold, detection *out, int max, tfpi_status *status);

#endif
