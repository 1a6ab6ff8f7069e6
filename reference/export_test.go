package reference

// ShrinkDocxBounds sets the bounds of a .docx to part and total bytes
// until the test ends, so that a test of a zip bomb expands little.
func ShrinkDocxBounds(cleanup func(func()), part, total int64) {
	oldPart, oldTotal := maxDocxPart, maxDocxTotal
	maxDocxPart, maxDocxTotal = part, total
	cleanup(func() { maxDocxPart, maxDocxTotal = oldPart, oldTotal })
}
