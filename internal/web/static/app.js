// Errata dashboard: progressive enhancement only; every page works without it.
"use strict";
