#!/usr/bin/env python3
"""Merge PDFs: merge.py OUT IN..."""
import sys

from pypdf import PdfWriter

w = PdfWriter()
for path in sys.argv[2:]:
    w.append(path)
w.write(sys.argv[1])
