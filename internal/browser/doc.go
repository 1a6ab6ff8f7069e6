// Package browser starts Debian's headless Chromium for tests that look at
// firmakit's pages as a person would.
package browser
