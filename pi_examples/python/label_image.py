#!/usr/bin/env python3
"""label_image.py [IMAGE] - label_image in Python with tfpi: the top 5 labels
of IMAGE (default grace_hopper.jpg) by the default MobileNet v1 0.25 224."""
import sys

import tfpi

model = "models/mobilenet_v1_0.25_224/"
labels = [line.strip().split(":", 1)[-1] for line in open(tfpi.data_file(model + "labels.txt"))]
session = tfpi.Session(tfpi.Graph(tfpi.data_file(model + "frozen_graph.pb")))
image = tfpi.load_image(sys.argv[1] if len(sys.argv) > 1 else tfpi.data_file("images/grace_hopper.jpg"))
scores = session.run({"input": tfpi.image_to_input(image, 224, 224)[None]},
                     "MobilenetV1/Predictions/Reshape_1")[0]
for i in scores.argsort()[::-1][:5]:
    print("%s (%d): %.6g" % (labels[i], i, scores[i]))
