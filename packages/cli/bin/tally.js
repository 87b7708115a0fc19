#!/usr/bin/env node
// The `tally` command. A file of its own, not dist/bin.js: it exists before the first build,
// so installing the workspace links it without a warning.
import "../dist/bin.js";
