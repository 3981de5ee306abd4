#!/usr/bin/env python3
"""camera.py [SOURCE] - live labels in Python with tfpi: each frame from
OpenCV's VideoCapture (a camera number, default 0, or a video or image file;
`sudo apt install python3-opencv`) goes through the default MobileNet, and
the top label is printed whenever it changes."""
import sys

import cv2
import tfpi

model = "models/mobilenet_v1_0.25_224/"
labels = [line.strip().split(":", 1)[-1] for line in open(tfpi.data_file(model + "labels.txt"))]
session = tfpi.Session(tfpi.Graph(tfpi.data_file(model + "frozen_graph.pb")))
source = sys.argv[1] if len(sys.argv) > 1 else "0"
capture = cv2.VideoCapture(int(source) if source.isdigit() else source)
last = None
while True:
    ok, frame = capture.read()
    if not ok:
        break
    x = tfpi.image_to_input(frame[:, :, ::-1], 224, 224)[None]  # OpenCV frames are BGR
    scores = session.run({"input": x}, "MobilenetV1/Predictions/Reshape_1")[0]
    if scores.argmax() != last:
        last = scores.argmax()
        print("%s %.2f" % (labels[last], scores[last]), flush=True)
