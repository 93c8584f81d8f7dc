package provider

import (
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// Usage is the token accounting of one assistant message; Cost is in USD.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
}

// Cost of a message in USD, per token kind.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// ContextTokens is how much of the context window the request used: totalTokens when known, else the
// sum of the parts.
func (u Usage) ContextTokens() int {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// Add accumulates other into u.
func (u *Usage) Add(other Usage) {
	u.Input += other.Input
	u.Output += other.Output
	u.CacheRead += other.CacheRead
	u.CacheWrite += other.CacheWrite
	u.TotalTokens += other.TotalTokens
	u.Cost.Input += other.Cost.Input
	u.Cost.Output += other.Cost.Output
	u.Cost.CacheRead += other.Cost.CacheRead
	u.Cost.CacheWrite += other.Cost.CacheWrite
	u.Cost.Total += other.Cost.Total
}

// CalculateCost fills u.Cost from the model's prices (USD per million tokens).
func (u *Usage) CalculateCost(prices ModelCost) {
	u.Cost.Input = prices.Input / 1e6 * float64(u.Input)
	u.Cost.Output = prices.Output / 1e6 * float64(u.Output)
	u.Cost.CacheRead = prices.CacheRead / 1e6 * float64(u.CacheRead)
	u.Cost.CacheWrite = prices.CacheWrite / 1e6 * float64(u.CacheWrite)
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
}

// appendJSON writes the usage object without reflection; it is on the path of every streamed delta.
func (u Usage) appendJSON(b []byte) []byte {
	b = append(b, `{"input":`...)
	b = strconv.AppendInt(b, int64(u.Input), 10)
	b = append(b, `,"output":`...)
	b = strconv.AppendInt(b, int64(u.Output), 10)
	b = append(b, `,"cacheRead":`...)
	b = strconv.AppendInt(b, int64(u.CacheRead), 10)
	b = append(b, `,"cacheWrite":`...)
	b = strconv.AppendInt(b, int64(u.CacheWrite), 10)
	b = append(b, `,"totalTokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	b = append(b, `,"cost":{"input":`...)
	b = appendJSFloat(b, u.Cost.Input)
	b = append(b, `,"output":`...)
	b = appendJSFloat(b, u.Cost.Output)
	b = append(b, `,"cacheRead":`...)
	b = appendJSFloat(b, u.Cost.CacheRead)
	b = append(b, `,"cacheWrite":`...)
	b = appendJSFloat(b, u.Cost.CacheWrite)
	b = append(b, `,"total":`...)
	b = appendJSFloat(b, u.Cost.Total)
	return append(b, `}}`...)
}

// appendJSFloat writes a cost as JSON.stringify does (negative zero as 0).
func appendJSFloat(b []byte, f float64) []byte {
	return jsonx.AppendNumber(b, f)
}
