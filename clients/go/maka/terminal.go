package maka

import (
	"context"
	"errors"
	"io"
	"strings"

	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
)

// ErrRunEnded is returned by WaitForScreen when the run ended before the screen matched.
var ErrRunEnded = errors.New("run ended before the screen matched")

// WaitForScreen follows a PTY run with Attach (output after afterSequence) and returns its
// screen as soon as match accepts it: the screen at attach time first, then after each
// output chunk (the service renders output into the screen before it sends the chunk). It
// returns ErrRunEnded (with the final screen) if the run ends first, and the context's error
// at its deadline. sessionID may be empty (the run's own session).
func (c *Client) WaitForScreen(ctx context.Context, sessionID, ref string, afterSequence int64,
	match func(*resourcev1.Screen) bool) (*resourcev1.Screen, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.Resource.Attach(ctx)
	if err != nil {
		return nil, err
	}
	start := &resourcev1.AttachRequest{Action: &resourcev1.AttachRequest_Start{Start: &resourcev1.AttachStart{
		SessionId: sessionID, Ref: ref, AfterSequence: afterSequence,
	}}}
	if err := stream.Send(start); err != nil {
		_, err = stream.Recv() // the status explains a failed send
		return nil, err
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	for {
		reply, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil, ErrRunEnded
		}
		if err != nil {
			return nil, err
		}
		var screen *resourcev1.Screen
		switch event := reply.GetEvent().(type) {
		case *resourcev1.AttachResponse_Attached:
			screen = event.Attached.GetScreen()
		case *resourcev1.AttachResponse_Output:
			got, err := c.Resource.GetRun(ctx, &resourcev1.GetRunRequest{SessionId: sessionID, Ref: ref})
			if err != nil {
				return nil, err
			}
			screen = got.GetRun().GetScreen()
		case *resourcev1.AttachResponse_Ended:
			final := event.Ended.GetScreen()
			if final != nil && match(final) {
				return final, nil
			}
			return final, ErrRunEnded
		}
		if screen != nil && match(screen) {
			return screen, nil
		}
	}
}

// ScreenText is the screen's scrollback and visible rows as one text, oldest row first.
func ScreenText(screen *resourcev1.Screen) string {
	return strings.Join(append(append([]string{}, screen.GetScrollback()...), screen.GetLines()...), "\n")
}

// ScreenContains is a WaitForScreen matcher for a text anywhere on the screen or in its
// scrollback.
func ScreenContains(text string) func(*resourcev1.Screen) bool {
	return func(screen *resourcev1.Screen) bool { return strings.Contains(ScreenText(screen), text) }
}
