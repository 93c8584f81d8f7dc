// Package blockstream holds what the API packages whose answers are built with
// provider.BlockBuilder (provider/responses, provider/google) share beyond the builder: pi 1.6's
// output-token limit and the idle watchdog of a call. It knows no wire format.
package blockstream
