"""The foundation: settings, ranking weights, languages, file roles, file names, the home
folder, private files, memory, system folders, OS locks, query words and the version."""
