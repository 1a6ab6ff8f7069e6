// Package docxtest builds Word .docx files for tests, the way Word lays
// them out, so that no binary fixture has to be kept in the tree.
package docxtest
