// Package maka is a small Go client for Maka Runtime: it dials the kernel and resource
// services, reads the structured detail (google.rpc.ErrorInfo) of their errors, streams a
// turn to its end (StreamTurn), holds a controller lease on a PTY run with its sequence
// bookkeeping (OpenConnection, AcquireController, Controller) and waits for a PTY screen to
// show something (WaitForScreen).
package maka

import (
	"errors"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	kernelv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/kernel/v1"
	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
)

// Client holds one connection to each service.
type Client struct {
	kernelConn   *grpc.ClientConn
	resourceConn *grpc.ClientConn
	Kernel       kernelv1.KernelServiceClient
	Resource     resourcev1.ResourceServiceClient
}

// Keepalive is the client side of the one keepalive policy of Maka Runtime (README section
// "Keepalive"; defined in clients/python/maka_runtime_client/keepalive.py): ping every 30 s, also with
// no call open, and drop a connection whose ping is not answered within 20 s. The services
// accept pings as often as every 10 s, so an idle stream (a turn waiting for an approval, an
// attached PTY) stays up for hours.
var Keepalive = keepalive.ClientParameters{
	Time:                30 * time.Second,
	Timeout:             20 * time.Second,
	PermitWithoutStream: true,
}

// Dial connects to the kernel and resource services with the Keepalive policy and the
// credential it finds itself (DialWith with zero Options).
func Dial(kernelAddress, resourceAddress string) (*Client, error) {
	return DialWith(kernelAddress, resourceAddress, Options{})
}

// DialWith connects with the credential settings of opts (token, data directory, TLS).
func DialWith(kernelAddress, resourceAddress string, opts Options) (*Client, error) {
	dial, err := dialOptions(opts)
	if err != nil {
		return nil, err
	}
	kernelConn, err := grpc.NewClient(kernelAddress, dial...)
	if err != nil {
		return nil, err
	}
	resourceConn, err := grpc.NewClient(resourceAddress, dial...)
	if err != nil {
		kernelConn.Close()
		return nil, err
	}
	return &Client{
		kernelConn:   kernelConn,
		resourceConn: resourceConn,
		Kernel:       kernelv1.NewKernelServiceClient(kernelConn),
		Resource:     resourcev1.NewResourceServiceClient(resourceConn),
	}, nil
}

// Close closes both connections.
func (c *Client) Close() error {
	return errors.Join(c.kernelConn.Close(), c.resourceConn.Close())
}

// ErrorInfo returns the google.rpc.ErrorInfo attached to a failed call, or nil.
func ErrorInfo(err error) *errdetails.ErrorInfo {
	st, ok := status.FromError(err)
	if !ok {
		return nil
	}
	for _, detail := range st.Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok {
			return info
		}
	}
	return nil
}

// KernelConn is the kernel connection, for other services on it (health, reflection).
func (c *Client) KernelConn() *grpc.ClientConn { return c.kernelConn }

// ResourceConn is the resource connection, for other services on it (health, reflection).
func (c *Client) ResourceConn() *grpc.ClientConn { return c.resourceConn }
