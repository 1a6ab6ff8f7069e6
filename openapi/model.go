package openapi

// The objects of an OpenAPI 3.1 document that this package writes, each
// with its fields in the order a reader expects them. Only what the
// interface needs is here; the document is written as JSON from these,
// and as YAML from that JSON (see Document.YAML), so both say the same.

// Document is an OpenAPI 3.1 document.
type Document struct {
	OpenAPI      string                `json:"openapi"`
	Info         Info                  `json:"info"`
	ExternalDocs *ExternalDocs         `json:"externalDocs,omitempty"`
	Servers      []Server              `json:"servers,omitempty"`
	Tags         []Tag                 `json:"tags,omitempty"`
	Paths        map[string]*PathItem  `json:"paths"`
	Webhooks     map[string]*PathItem  `json:"webhooks,omitempty"`
	Components   Components            `json:"components"`
	Security     []map[string][]string `json:"security,omitempty"`
	// Profile names the profile the document was written under.
	Profile string `json:"x-firmakit-profile,omitempty"`
}

// Info is the document's title, description and version.
type Info struct {
	Title       string   `json:"title"`
	Summary     string   `json:"summary,omitempty"`
	Description string   `json:"description,omitempty"`
	License     *License `json:"license,omitempty"`
	Version     string   `json:"version"`
}

// License is the license the document's text is under.
type License struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier,omitempty"`
}

// ExternalDocs links to a page of firmakit's manual.
type ExternalDocs struct {
	Description string `json:"description,omitempty"`
	URL         string `json:"url"`
}

// Server is a base URL of the service.
type Server struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

// Tag groups operations.
type Tag struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// PathItem holds the operations of a path (or of a webhook).
type PathItem struct {
	Parameters []*Parameter `json:"parameters,omitempty"`
	Post       *Operation   `json:"post,omitempty"`
}

// Operation is one method of a path.
type Operation struct {
	Tags         []string              `json:"tags,omitempty"`
	Summary      string                `json:"summary,omitempty"`
	Description  string                `json:"description,omitempty"`
	ExternalDocs *ExternalDocs         `json:"externalDocs,omitempty"`
	OperationID  string                `json:"operationId,omitempty"`
	Parameters   []*Parameter          `json:"parameters,omitempty"`
	RequestBody  *RequestBody          `json:"requestBody,omitempty"`
	Responses    map[string]*Response  `json:"responses"`
	Security     []map[string][]string `json:"security,omitempty"`
	// Requirement is the requirement tags of the scenarios that check the
	// operation (x-firmakit-requirement).
	Requirement []string `json:"x-firmakit-requirement,omitempty"`
}

// Parameter is a path or header parameter.
type Parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *Schema `json:"schema"`
	Example     any     `json:"example,omitempty"`
}

// RequestBody is an operation's body.
type RequestBody struct {
	Description string                `json:"description,omitempty"`
	Required    bool                  `json:"required,omitempty"`
	Content     map[string]*MediaType `json:"content"`
}

// MediaType is a body's schema and examples under one content type.
type MediaType struct {
	Schema   *Schema             `json:"schema"`
	Examples map[string]*Example `json:"examples,omitempty"`
}

// Example is a named example of a body.
type Example struct {
	Summary     string `json:"summary,omitempty"`
	Description string `json:"description,omitempty"`
	Value       any    `json:"value"`
}

// Response is one answer of an operation.
type Response struct {
	Description string                `json:"description"`
	Headers     map[string]*Header    `json:"headers,omitempty"`
	Content     map[string]*MediaType `json:"content,omitempty"`
	// Requirement is the requirement tags of the scenarios that check the
	// answer (x-firmakit-requirement).
	Requirement []string `json:"x-firmakit-requirement,omitempty"`
}

// Header is a header of an answer.
type Header struct {
	Description string  `json:"description,omitempty"`
	Schema      *Schema `json:"schema"`
}

// Components holds the schemas and security schemes the operations refer to.
type Components struct {
	Schemas         map[string]*Schema         `json:"schemas,omitempty"`
	SecuritySchemes map[string]*SecurityScheme `json:"securitySchemes,omitempty"`
}

// SecurityScheme is one authentication header.
type SecurityScheme struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Name        string `json:"name"`
	In          string `json:"in"`
}

// Schema is a JSON Schema (draft 2020-12, as OpenAPI 3.1 takes it).
type Schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Title                string             `json:"title,omitempty"`
	Description          string             `json:"description,omitempty"`
	Type                 any                `json:"type,omitempty"` // a type name, or a list of them
	Format               string             `json:"format,omitempty"`
	Const                any                `json:"const,omitempty"`
	Enum                 []any              `json:"enum,omitempty"`
	Default              any                `json:"default,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"` // a *Schema, or false
	PropertyNames        *Schema            `json:"propertyNames,omitempty"`
	MinProperties        *int               `json:"minProperties,omitempty"`
	MaxProperties        *int               `json:"maxProperties,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	UniqueItems          bool               `json:"uniqueItems,omitempty"`
	AllOf                []*Schema          `json:"allOf,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	Not                  *Schema            `json:"not,omitempty"`
	Discriminator        *Discriminator     `json:"discriminator,omitempty"`
	Examples             []any              `json:"examples,omitempty"`
	// Requirement is the requirement tags of the scenarios that check what
	// the schema describes (x-firmakit-requirement).
	Requirement []string `json:"x-firmakit-requirement,omitempty"`
}

// Discriminator tells which schema of a oneOf a body is by one of its fields.
type Discriminator struct {
	PropertyName string            `json:"propertyName"`
	Mapping      map[string]string `json:"mapping,omitempty"`
}

func intp(n int) *int { return &n }

func ref(name string) *Schema { return &Schema{Ref: "#/components/schemas/" + name} }
