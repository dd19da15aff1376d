package toolname

// The tools, in the order they are offered to the model.
const (
	// ListProjectFiles lists the files tracked at head.
	ListProjectFiles = "list_project_files"
	// SearchInProject searches the files at head for a regular expression.
	SearchInProject = "search_in_project"
	// ReadFileHunk reads numbered lines of a file at head or base.
	ReadFileHunk = "read_file_hunk"
	// GetFileDiff returns one changed file's whole diff.
	GetFileDiff = "get_file_diff"
	// GetDependencies shows manifests, a file's imports and its importers.
	GetDependencies = "get_dependencies"
	// FindDefinition shows where a name is defined, with its lines.
	FindDefinition = "find_definition"
	// FindReferences lists where a defined name is used, by file.
	FindReferences = "find_references"
	// ReadToolOutput pages or greps an output kept in tool memory; preview
	// headers name it as the call that gets more.
	ReadToolOutput = "read_tool_output"
	// SubmitReview ends a review with its summary and findings. Package
	// review defines it: it knows findings.
	SubmitReview = "submit_review"
)

// Unnamed is the name a tool call that came without one is kept under
// (some servers send such calls; the provider refuses them when they are
// sent back). It is no tool's name, so the call is answered as an unknown
// tool's, saying that it named none.
const Unnamed = "unnamed_tool"
