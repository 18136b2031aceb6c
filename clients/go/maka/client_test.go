package maka_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/health/grpc_health_v1"

	kernelv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/kernel/v1"
	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
	"github.com/maka-runtime/maka-runtime/clients/go/internal/servicetest"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

func TestServicesAnswerFromGo(t *testing.T) {
	dataDir := t.TempDir()
	resourceAddr := servicetest.Start(t, "maka_runtime.resource.server", dataDir, "--standalone")
	kernelAddr := servicetest.Start(t, "maka_runtime.kernel.server", dataDir, "--resource-address", resourceAddr, "--default-backend", "scripted")

	client, err := maka.Dial(kernelAddr, resourceAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	kernelInfo, err := client.Kernel.GetServerInfo(ctx, &kernelv1.GetServerInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if kernelInfo.GetService() != "maka-kernel" || kernelInfo.GetListenAddress() != kernelAddr {
		t.Fatalf("unexpected kernel info: %v", kernelInfo)
	}
	resourceInfo, err := client.Resource.GetServerInfo(ctx, &resourcev1.GetServerInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resourceInfo.GetService() != "maka-resource" || resourceInfo.GetListenAddress() != resourceAddr {
		t.Fatalf("unexpected resource info: %v", resourceInfo)
	}
}

func TestHealthFromGo(t *testing.T) {
	dataDir := t.TempDir()
	resourceAddr := servicetest.Start(t, "maka_runtime.resource.server", dataDir, "--standalone")
	client, err := maka.Dial(resourceAddr, resourceAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	reply, err := grpc_health_v1.NewHealthClient(client.ResourceConn()).Check(
		ctx, &grpc_health_v1.HealthCheckRequest{Service: "maka.resource.v1.ResourceService"})
	if err != nil {
		t.Fatal(err)
	}
	if reply.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
		t.Fatalf("status %v", reply.GetStatus())
	}
}
