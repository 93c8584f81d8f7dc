#!/usr/bin/env python3
"""Print the text of every page of a PDF, pages separated by form feeds."""
import sys

from pypdf import PdfReader

for page in PdfReader(sys.argv[1]).pages:
    print(page.extract_text() or "", end="\f\n")
