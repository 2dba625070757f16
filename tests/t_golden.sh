#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_golden.sh - the golden-file comparison as part of the suite.
exec bash "$(dirname "$0")/golden.sh"
