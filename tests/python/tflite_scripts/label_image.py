"""label_image for tflite.

A test fixture: TensorFlow's tensorflow/lite/examples/python/label_image.py,
written again here in its style and with its behaviour (its flags and
defaults' meaning, Pillow's resize to the model's input size, the
float/quantized branch, the top 5 printed as '{:08.6f}: {label}' and the
time), in the tflite_runtime form Raspberry Pi guides give it. The tests run
it with only the import line changed to tfpi's (tests/python/test_tflite_scripts.py).
"""

import argparse
import time

import numpy as np
from PIL import Image
import tflite_runtime.interpreter as tflite


def load_labels(filename):
  with open(filename, 'r') as f:
    return [line.strip() for line in f.readlines()]


if __name__ == '__main__':
  parser = argparse.ArgumentParser()
  parser.add_argument(
      '-i', '--image', default='/tmp/grace_hopper.bmp',
      help='image to be classified')
  parser.add_argument(
      '-m', '--model_file', default='/tmp/mobilenet_v1_1.0_224_quant.tflite',
      help='.tflite model to be executed')
  parser.add_argument(
      '-l', '--label_file', default='/tmp/labels.txt',
      help='name of file containing labels')
  parser.add_argument(
      '--input_mean', default=127.5, type=float, help='input_mean')
  parser.add_argument(
      '--input_std', default=127.5, type=float,
      help='input standard deviation')
  parser.add_argument(
      '--num_threads', default=None, type=int, help='number of threads')
  args = parser.parse_args()

  interpreter = tflite.Interpreter(
      model_path=args.model_file, num_threads=args.num_threads)
  interpreter.allocate_tensors()

  input_details = interpreter.get_input_details()
  output_details = interpreter.get_output_details()

  # a float model takes normalised pixels, a quantized one the bytes
  floating_model = input_details[0]['dtype'] == np.float32

  # NxHxWxC: height is dimension 1, width dimension 2
  height = input_details[0]['shape'][1]
  width = input_details[0]['shape'][2]
  img = Image.open(args.image).resize((width, height))

  # the batch dimension
  input_data = np.expand_dims(img, axis=0)

  if floating_model:
    input_data = (np.float32(input_data) - args.input_mean) / args.input_std

  interpreter.set_tensor(input_details[0]['index'], input_data)

  start_time = time.time()
  interpreter.invoke()
  stop_time = time.time()

  output_data = interpreter.get_tensor(output_details[0]['index'])
  results = np.squeeze(output_data)

  top_k = results.argsort()[-5:][::-1]
  labels = load_labels(args.label_file)
  for i in top_k:
    if floating_model:
      print('{:08.6f}: {}'.format(float(results[i]), labels[i]))
    else:
      print('{:08.6f}: {}'.format(float(results[i] / 255.0), labels[i]))

  print('time: {:.3f}ms'.format((stop_time - start_time) * 1000))
