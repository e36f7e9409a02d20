; TSX edges: the TypeScript edge query.
; include: typescript.scm
