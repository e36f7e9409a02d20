; TSX: the TypeScript query (the tsx grammar names its nodes as typescript's does).
; include: typescript.scm
