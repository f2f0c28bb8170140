// Lights Out: implement the game described in specs/.
"use strict";
