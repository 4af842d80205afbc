package share

import "errors"

// InputError is a mistake in what the user handed a command — a file
// that does not exist or is not what the command takes, a destination it
// will not write — as opposed to a failure of a registry or an artifact.
// Commands report it as a usage error.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(err error) error { return &InputError{Err: err} }

// IsInput reports whether err is an *InputError.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
