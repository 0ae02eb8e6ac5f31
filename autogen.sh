#!/bin/sh
# Generates configure and the Makefile templates (needs autoconf, automake, libtool, pkg-config).
set -e
cd "$(dirname "$0")"
autoreconf --install --force
