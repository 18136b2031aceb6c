// Command first-turn is the smallest program built on the Go client, and the one that shows it
// builds from outside this repository: it uses only the module's public packages (maka and the
// generated gen/...), so a copy of this file in a module of its own that requires
//
//	github.com/maka-runtime/maka-runtime/clients/go
//
// at a released version builds as it is (tests/clients/test_packages.py does exactly that). It
// creates a session, streams a scripted turn to its end, asks for a session that does not
// exist (NOT_FOUND, ErrorInfo reason NOT_FOUND) and prints what it saw, one line each:
//
//	go run ./examples/first-turn -kernel 127.0.0.1:50051 -workspace "$PWD"
//
// The credential is found as by maka.Dial (MAKA_TOKEN, else the services' local one).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	commonv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/common/v1"
	kernelv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/kernel/v1"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func main() {
	kernel := flag.String("kernel", "127.0.0.1:50051", "kernel address")
	resource := flag.String("resource", "127.0.0.1:50052", "resource address (not called here)")
	workspace := flag.String("workspace", os.TempDir(), "the session's workspace root")
	script := flag.String("script", "/script say hello; tool bash ls; say done", "the turn text")
	timeout := flag.Duration("timeout", 30*time.Second, "deadline for the whole program")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *kernel, *resource, *workspace, *script); err != nil {
		fmt.Fprintln(os.Stderr, "first-turn:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kernel, resource, workspace, script string) error {
	client, err := maka.Dial(kernel, resource)
	if err != nil {
		return err
	}
	defer client.Close()
	created, err := client.Kernel.CreateSession(ctx, &kernelv1.CreateSessionRequest{
		WorkspaceRoot: workspace, Name: "first-turn"})
	if err != nil {
		return maka.AuthError(err)
	}
	session := created.GetSession().GetId()
	fmt.Println("session", session)
	turn, err := client.CollectTurn(ctx, &kernelv1.StartTurnRequest{SessionId: session, Text: script})
	if err != nil {
		return err
	}
	for _, event := range turn.Events {
		if call := event.GetToolCall(); call != nil {
			fmt.Println("tool", call.GetName(), call.GetInput())
		}
	}
	fmt.Println("turn", turn.TurnID, turn.Status, "events", len(turn.Events), "last seq", turn.LastSeq)
	fmt.Println("text", turn.Text())
	_, err = client.Kernel.GetSession(ctx, &kernelv1.GetSessionRequest{SessionId: "no-such-session"})
	if status.Code(err) != codes.NotFound || !maka.HasReason(err, commonv1.ErrorReason_ERROR_REASON_NOT_FOUND) {
		return errors.Join(errors.New("an unknown session was not NOT_FOUND"), err)
	}
	info := maka.ErrorInfo(err)
	fmt.Println("error", status.Code(err), info.GetReason(), info.GetDomain())
	return nil
}
