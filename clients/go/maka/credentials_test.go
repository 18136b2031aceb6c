package maka_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
	"github.com/maka-runtime/maka-runtime/clients/go/internal/servicetest"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

func TestLocalCredentialFromGo(t *testing.T) {
	t.Setenv("MAKA_TOKEN", "") // only the local credential of the data directory
	dataDir := t.TempDir()
	resourceAddr := servicetest.Start(t, "maka_runtime.resource.server", dataDir, "--standalone")
	data, err := os.ReadFile(filepath.Join(dataDir, "credentials", "local.token"))
	if err != nil {
		t.Fatal(err)
	}
	if got := maka.FindToken(maka.Options{DataDir: dataDir}); got != strings.TrimSpace(string(data)) {
		t.Fatalf("FindToken did not read the local credential")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	client, err := maka.Dial(resourceAddr, resourceAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.Resource.GetServerInfo(ctx, &resourcev1.GetServerInfoRequest{}); err != nil {
		t.Fatalf("with the local credential: %v", err)
	}

	wrong, err := maka.DialWith(resourceAddr, resourceAddr, maka.Options{Token: "not-a-token"})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	_, err = wrong.Resource.GetServerInfo(ctx, &resourcev1.GetServerInfoRequest{})
	if status.Code(err) != codes.Unauthenticated || !errors.Is(maka.AuthError(err), maka.ErrUnauthenticated) {
		t.Fatalf("a wrong token: want UNAUTHENTICATED, got %v", err)
	}
	if info := maka.ErrorInfo(err); info == nil || info.GetReason() != "UNAUTHENTICATED" {
		t.Fatalf("a wrong token: want reason UNAUTHENTICATED, got %v", info)
	}
	// Health stays open to anyone.
	reply, err := grpc_health_v1.NewHealthClient(wrong.ResourceConn()).Check(
		ctx, &grpc_health_v1.HealthCheckRequest{})
	if err != nil || reply.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
		t.Fatalf("health without a valid credential: %v %v", reply, err)
	}
}
