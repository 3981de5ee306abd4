######## Object detection on an image with a TensorFlow Lite model #########
#
# A test fixture: a Raspberry Pi object-detection script as the widely
# followed tutorials write it for tflite_runtime (OpenCV reads and resizes
# the picture; the boxes, classes and scores are the model's outputs 0, 1
# and 2, or 1, 3 and 0 for TF2 exports; labels from a label map; detections
# above a threshold are drawn and listed). Written for tfpi's tests in that
# style, not copied; the tests run it with only the import line changed
# (tests/python/test_tflite_scripts.py).

import argparse
import os
import sys

import cv2
import numpy as np
from tflite_runtime.interpreter import Interpreter

parser = argparse.ArgumentParser()
parser.add_argument('--model', help='Path to the .tflite model', required=True)
parser.add_argument('--labels', help='Path to the label map', required=True)
parser.add_argument('--image', help='Picture to run detection on', required=True)
parser.add_argument('--threshold', help='Minimum confidence to show a detection',
                    default=0.5)
parser.add_argument('--save', help='Write the picture with the boxes drawn here',
                    default=None)
args = parser.parse_args()

min_conf_threshold = float(args.threshold)

# Load the label map
with open(args.labels, 'r') as f:
    labels = [line.strip() for line in f.readlines()]

# Some label maps start with '???' for the background class; drop it
if labels[0] == '???':
    del(labels[0])

# Load the model and get its details
interpreter = Interpreter(model_path=args.model)
interpreter.allocate_tensors()

input_details = interpreter.get_input_details()
output_details = interpreter.get_output_details()
height = input_details[0]['shape'][1]
width = input_details[0]['shape'][2]

floating_model = (input_details[0]['dtype'] == np.float32)

input_mean = 127.5
input_std = 127.5

# TF2 models order their outputs differently from TF1 models
outname = output_details[0]['name']

if ('StatefulPartitionedCall' in outname):  # TF2 model
    boxes_idx, classes_idx, scores_idx = 1, 3, 0
else:  # TF1 model
    boxes_idx, classes_idx, scores_idx = 0, 1, 2

# Load the image and resize it to what the model expects [1xHxWx3]
image = cv2.imread(args.image)
if image is None:
    sys.exit('Could not read ' + args.image)
image_rgb = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
imH, imW, _ = image.shape
image_resized = cv2.resize(image_rgb, (width, height))
input_data = np.expand_dims(image_resized, axis=0)

# Normalize pixel values if the model is not quantized
if floating_model:
    input_data = (np.float32(input_data) - input_mean) / input_std

# Run the model
interpreter.set_tensor(input_details[0]['index'], input_data)
interpreter.invoke()

# The results
boxes = interpreter.get_tensor(output_details[boxes_idx]['index'])[0]    # box coordinates
classes = interpreter.get_tensor(output_details[classes_idx]['index'])[0]  # class index
scores = interpreter.get_tensor(output_details[scores_idx]['index'])[0]  # confidence

# Go through the detections, list and draw the ones above the threshold
for i in range(len(scores)):
    if ((scores[i] > min_conf_threshold) and (scores[i] <= 1.0)):

        # Box corners in pixels, kept inside the picture
        ymin = int(max(1, (boxes[i][0] * imH)))
        xmin = int(max(1, (boxes[i][1] * imW)))
        ymax = int(min(imH, (boxes[i][2] * imH)))
        xmax = int(min(imW, (boxes[i][3] * imW)))

        cv2.rectangle(image, (xmin, ymin), (xmax, ymax), (10, 255, 0), 2)

        object_name = labels[int(classes[i])]
        label = '%s: %d%%' % (object_name, int(scores[i] * 100))
        cv2.putText(image, label, (xmin, ymin - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                    (0, 0, 0), 2)
        print('%s %.4f %d %d %d %d' % (object_name, scores[i], ymin, xmin, ymax, xmax))

if args.save:
    cv2.imwrite(args.save, image)
    print('Saved ' + os.path.basename(args.save))
