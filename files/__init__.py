"""Files a run reads and writes, plain Python: which inputs (:mod:`.inputs`), outputs written all or none
(:mod:`.outputs`), Ctrl-C and SIGTERM around them (:mod:`.interrupts`), and progress on the terminal (:mod:`.progress`)."""
