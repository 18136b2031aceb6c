package maka

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
)

// Connection is an open OpenConnection stream. Controller leases acquired under its ID are
// released by the resource service when the connection ends (Close, or the process exiting).
type Connection struct {
	ID     string
	cancel context.CancelFunc
	done   chan struct{}
}

// OpenConnection opens a client connection on the resource service. ctx bounds only the wait
// for the server's answer; the connection stays open until Close.
func (c *Client) OpenConnection(ctx context.Context, clientName string) (*Connection, error) {
	streamCtx, cancel := context.WithCancel(context.Background())
	stream, err := c.Resource.OpenConnection(streamCtx, &resourcev1.OpenConnectionRequest{ClientName: clientName})
	if err != nil {
		cancel()
		return nil, err
	}
	type answer struct {
		reply *resourcev1.OpenConnectionResponse
		err   error
	}
	first := make(chan answer, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		reply, err := stream.Recv()
		first <- answer{reply, err}
		if err != nil {
			return
		}
		// Keep reading so the stream's end (server shutdown or Close) is noticed.
		for {
			if _, err := stream.Recv(); err != nil {
				return
			}
		}
	}()
	select {
	case got := <-first:
		if got.err != nil {
			cancel()
			<-done
			return nil, got.err
		}
		return &Connection{ID: got.reply.GetConnectionId(), cancel: cancel, done: done}, nil
	case <-ctx.Done():
		cancel()
		<-done
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// Close ends the connection; the service then releases its leases. Safe to call twice.
func (conn *Connection) Close() {
	conn.cancel()
	<-conn.done
}

// Controller is a controller lease on a PTY run, with the sequence bookkeeping of its
// controls: Control sends the next sequence and advances only when the service has applied
// it. A control whose outcome is unknown (deadline, transport failure) stays pending: the
// next Control is refused until Retry has resent it, since the service accepts only exactly
// the next sequence and answers an exact retry with the original result.
type Controller struct {
	resource     resourcev1.ResourceServiceClient
	SessionID    string
	Ref          string
	ID           string
	ConnectionID string

	mu      sync.Mutex
	next    int64
	last    *resourcev1.ControlControllerRequest
	pending bool
}

// ErrControlPending is returned by Control while an earlier control's outcome is unknown.
var ErrControlPending = errors.New("an earlier control's outcome is unknown; call Retry first")

// AcquireController takes the controller lease on an active PTY run. sessionID may be empty:
// a ref names its run, and the service takes the run's own session (a session that is not
// the run's is NOT_FOUND). conn may be nil for a detached lease (it lasts until released or
// the run ends). A lease held by another controller fails with ABORTED and ErrorInfo reason
// OPERATION_CONFLICT.
func (c *Client) AcquireController(ctx context.Context, sessionID, ref, controllerID string,
	conn *Connection) (*Controller, *resourcev1.AcquireControllerResponse, error) {
	req := &resourcev1.AcquireControllerRequest{SessionId: sessionID, Ref: ref, ControllerId: controllerID}
	if conn != nil {
		req.ConnectionId = conn.ID
	}
	reply, err := c.Resource.AcquireController(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	return &Controller{
		resource:     c.Resource,
		SessionID:    sessionID,
		Ref:          ref,
		ID:           reply.GetControllerId(),
		ConnectionID: req.ConnectionId,
		next:         reply.GetNextSequence(),
	}, reply, nil
}

// NextSequence is the sequence the next Control will carry.
func (l *Controller) NextSequence() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// Send types input (e.g. "ls\r") under the lease.
func (l *Controller) Send(ctx context.Context, input string) (*resourcev1.ControlControllerResponse, error) {
	return l.Control(ctx, input, nil)
}

// Resize changes the terminal size under the lease.
func (l *Controller) Resize(ctx context.Context, cols, rows int32) (*resourcev1.ControlControllerResponse, error) {
	return l.Control(ctx, "", &resourcev1.TerminalSize{Cols: cols, Rows: rows})
}

// Control sends input and/or a resize with the next sequence.
func (l *Controller) Control(ctx context.Context, input string,
	resize *resourcev1.TerminalSize) (*resourcev1.ControlControllerResponse, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending {
		return nil, ErrControlPending
	}
	req := &resourcev1.ControlControllerRequest{
		SessionId:    l.SessionID,
		Ref:          l.Ref,
		ControllerId: l.ID,
		ConnectionId: l.ConnectionID,
		Sequence:     l.next,
		Input:        input,
		Resize:       resize,
	}
	return l.send(ctx, req)
}

// Retry resends the last control exactly (same sequence, same payload). After a success the
// service answers with the identical earlier result; after an unknown outcome it applies the
// control now or returns the result it already applied.
func (l *Controller) Retry(ctx context.Context) (*resourcev1.ControlControllerResponse, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		return nil, errors.New("no control to retry")
	}
	return l.send(ctx, l.last)
}

func (l *Controller) send(ctx context.Context,
	req *resourcev1.ControlControllerRequest) (*resourcev1.ControlControllerResponse, error) {
	reply, err := l.resource.ControlController(ctx, req)
	switch {
	case err == nil:
		l.last = proto.Clone(req).(*resourcev1.ControlControllerRequest)
		l.pending = false
		if req.GetSequence() == l.next {
			l.next++
		}
		return reply, nil
	case outcomeUnknown(err):
		l.last = proto.Clone(req).(*resourcev1.ControlControllerRequest)
		l.pending = true
		return nil, fmt.Errorf("control %d: outcome unknown: %w", req.GetSequence(), err)
	default:
		// The service refused it: the sequence was not used.
		l.pending = false
		return nil, err
	}
}

// Release gives the lease up; released is false when it had already ended (connection
// closed, run ended).
func (l *Controller) Release(ctx context.Context) (bool, error) {
	reply, err := l.resource.ReleaseController(ctx, &resourcev1.ReleaseControllerRequest{
		SessionId: l.SessionID, Ref: l.Ref, ControllerId: l.ID, ConnectionId: l.ConnectionID,
	})
	if err != nil {
		return false, err
	}
	return reply.GetReleased(), nil
}

// outcomeUnknown reports whether a failed call may still have been applied by the server.
func outcomeUnknown(err error) bool {
	switch status.Code(err) {
	case codes.DeadlineExceeded, codes.Canceled, codes.Unavailable, codes.Unknown, codes.Internal:
		return true
	}
	return false
}
