package blockstream

import "github.com/pi-go/pi-go/internal/provider"

// OutputLimit is the output-token limit pi 1.6 asks these APIs for (its buildBaseOptions): the call's
// MaxTokens, else the model's, fitted into the context window left after the input
// (provider.ClampMaxTokensToContext). 0 means none.
func OutputLimit(req *provider.Request) int {
	limit := req.Options.MaxTokens
	if limit <= 0 {
		limit = req.Model.MaxTokens
	}
	if limit <= 0 {
		return 0
	}
	return provider.ClampMaxTokensToContext(req, limit)
}
