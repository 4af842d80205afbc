package problem

// GroupType classifies a group; pass policies count cases by type.
type GroupType string

const (
	Core          GroupType = "Core"
	Functionality GroupType = "Functionality"
	Error         GroupType = "Error"
	Regression    GroupType = "Regression"
)

// DefaultGroupType is used when a group does not say.
const DefaultGroupType = Functionality

// GroupTypes lists every valid group type in report order.
var GroupTypes = []GroupType{Core, Functionality, Error, Regression}

// Valid reports whether t is one of the known group types.
func (t GroupType) Valid() bool {
	for _, g := range GroupTypes {
		if g == t {
			return true
		}
	}
	return false
}
