"""The foundation: settings, weights, languages, file roles, the home folder,
private files, memory, system folders, OS locks and query words."""
