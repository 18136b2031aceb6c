package maka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	kernelv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/kernel/v1"
)

// TurnResult is a turn streamed to its end.
type TurnResult struct {
	// TurnID is the turn's id (the one requested, or the one the kernel chose).
	TurnID string
	// Events are the streamed events in the order they arrived.
	Events []*kernelv1.SessionEvent
	// Status is the status of the last turn_state event: COMPLETED, ABORTED or FAILED for a
	// turn that ended, UNSPECIFIED if the stream carried none.
	Status kernelv1.TurnStatus
	// LastSeq is the seq of the last event; WatchSession after it continues the log.
	LastSeq int64
}

// Text joins the turn's text deltas.
func (r *TurnResult) Text() string {
	var text strings.Builder
	for _, event := range r.Events {
		text.WriteString(event.GetTextDelta().GetText())
	}
	return text.String()
}

// ErrTurnNotEnded is returned when a turn's stream ends without a terminal turn_state.
var ErrTurnNotEnded = errors.New("turn stream ended before the turn did")

// StreamTurn starts a turn (or attaches to it again: a retried request with the same turn_id
// and text joins the same turn) and calls onEvent for every event until the turn ends. It
// returns once the stream has ended after a terminal turn_state; the context's deadline
// bounds the whole turn. onEvent may be nil; an error from it cancels the stream (which
// abandons the turn: the kernel stops it).
func (c *Client) StreamTurn(ctx context.Context, req *kernelv1.StartTurnRequest,
	onEvent func(*kernelv1.SessionEvent) error) (*TurnResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.Kernel.StartTurn(ctx, req)
	if err != nil {
		return nil, err
	}
	result := &TurnResult{TurnID: req.GetTurnId()}
	for {
		reply, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return result, err
		}
		event := reply.GetEvent()
		result.Events = append(result.Events, event)
		result.LastSeq = event.GetSeq()
		if result.TurnID == "" {
			result.TurnID = event.GetTurnId()
		}
		if state := event.GetTurnState(); state != nil {
			result.Status = state.GetStatus()
		}
		if onEvent != nil {
			if err := onEvent(event); err != nil {
				return result, err
			}
		}
	}
	if !TurnEnded(result.Status) {
		return result, fmt.Errorf("%w (last status %v)", ErrTurnNotEnded, result.Status)
	}
	return result, nil
}

// CollectTurn streams a turn to its end and returns all its events.
func (c *Client) CollectTurn(ctx context.Context, req *kernelv1.StartTurnRequest) (*TurnResult, error) {
	return c.StreamTurn(ctx, req, nil)
}

// TurnEnded reports whether status is terminal (completed, aborted or failed).
func TurnEnded(status kernelv1.TurnStatus) bool {
	switch status {
	case kernelv1.TurnStatus_TURN_STATUS_COMPLETED, kernelv1.TurnStatus_TURN_STATUS_ABORTED,
		kernelv1.TurnStatus_TURN_STATUS_FAILED:
		return true
	}
	return false
}
