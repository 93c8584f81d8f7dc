#!/bin/sh
# Prints the header and the number of rows of a CSV file.
head -n 1 "$1"
echo "rows: $(($(wc -l < "$1") - 1))"
