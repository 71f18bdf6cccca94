"""Every visibility and quality number, against the clips' own motion: a loop's seam (:mod:`.seam`), a transition's
(:mod:`.transition`), an edit's (:mod:`.edit`), and where the body stands against its clips (:mod:`.grounding`)."""
