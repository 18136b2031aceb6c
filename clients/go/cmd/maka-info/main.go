// Command maka-info prints what the kernel and resource services say about themselves.
//
//	go run ./cmd/maka-info -kernel 127.0.0.1:50051 -resource 127.0.0.1:50052
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	kernelv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/kernel/v1"
	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

func main() {
	kernelAddr := flag.String("kernel", "127.0.0.1:50051", "kernel address")
	resourceAddr := flag.String("resource", "127.0.0.1:50052", "resource address")
	flag.Parse()
	client, err := maka.Dial(*kernelAddr, *resourceAddr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "maka-info:", err)
		os.Exit(1)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kernel, err := client.Kernel.GetServerInfo(ctx, &kernelv1.GetServerInfoRequest{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "maka-info: kernel:", err)
		os.Exit(1)
	}
	resource, err := client.Resource.GetServerInfo(ctx, &resourcev1.GetServerInfoRequest{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "maka-info: resource:", err)
		os.Exit(1)
	}
	fmt.Printf("%s %s at %s (pid %d)\n", kernel.GetService(), kernel.GetVersion(), kernel.GetListenAddress(), kernel.GetPid())
	fmt.Printf("%s %s at %s (pid %d)\n", resource.GetService(), resource.GetVersion(), resource.GetListenAddress(), resource.GetPid())
}
