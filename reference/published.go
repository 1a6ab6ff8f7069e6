package reference

import (
	"net/http"

	"github.com/firmakit/firmakit"
	"github.com/labstack/echo/v4"
)

// Document is a file the server serves as it is, with GET at a fixed
// path: the interface's OpenAPI document at /openapi.json, say.
type Document struct {
	Path        string
	ContentType string
	Body        []byte
}

// DemoReason is the reason a demo notification of state s carries, ""
// for a state that carries none.
func DemoReason(s firmakit.State) string { return demoReasons[s] }

// openDocuments makes the server's documents, once its public URL is
// known.
func (s *Server) openDocuments() error {
	if s.Documents == nil {
		return nil
	}
	docs, err := s.Documents(s.PublicURL)
	if err != nil {
		return err
	}
	s.documents = docs
	return nil
}

// documentRoutes serves the documents.
func (s *Server) documentRoutes(e *echo.Echo) {
	for _, d := range s.documents {
		e.GET(d.Path, func(c echo.Context) error { return c.Blob(http.StatusOK, d.ContentType, d.Body) })
	}
}
