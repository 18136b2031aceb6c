// Command echo is the grpc-go baseline of the benchmarks: it serves maka.bench.echo.v1.Echo
// (echo.proto, read from the descriptor set passed with -descriptors) with reflection, on
// loopback, and logs "echo-go listening on HOST:PORT" once it serves.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

type echo struct {
	request, response              protoreflect.MessageDescriptor
	responseBytes, frames, payload protoreflect.FieldDescriptor
}

func (e *echo) answer(req *dynamicpb.Message) (*dynamicpb.Message, uint64) {
	resp := dynamicpb.NewMessage(e.response)
	size := req.Get(e.responseBytes).Uint()
	resp.Set(e.payload, protoreflect.ValueOfBytes(make([]byte, size)))
	return resp, req.Get(e.frames).Uint()
}

func (e *echo) unary(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	req := dynamicpb.NewMessage(e.request)
	if err := dec(req); err != nil {
		return nil, err
	}
	resp, _ := e.answer(req)
	return resp, nil
}

func (e *echo) stream(_ any, stream grpc.ServerStream) error {
	req := dynamicpb.NewMessage(e.request)
	if err := stream.RecvMsg(req); err != nil {
		return err
	}
	resp, frames := e.answer(req)
	for i := uint64(0); i < frames; i++ {
		if err := stream.SendMsg(resp); err != nil {
			return err
		}
	}
	return nil
}

func load(path string) (*echo, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	set := &descriptorpb.FileDescriptorSet{}
	if err := proto.Unmarshal(raw, set); err != nil {
		return nil, err
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		return nil, err
	}
	var failed error
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if _, err := protoregistry.GlobalFiles.FindFileByPath(fd.Path()); err == nil {
			return true
		}
		failed = protoregistry.GlobalFiles.RegisterFile(fd)
		return failed == nil
	})
	if failed != nil {
		return nil, failed
	}
	find := func(name string) (protoreflect.MessageDescriptor, error) {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			return nil, err
		}
		return d.(protoreflect.MessageDescriptor), nil
	}
	request, err := find("maka.bench.echo.v1.EchoRequest")
	if err != nil {
		return nil, err
	}
	response, err := find("maka.bench.echo.v1.EchoResponse")
	if err != nil {
		return nil, err
	}
	return &echo{
		request:       request,
		response:      response,
		responseBytes: request.Fields().ByName("response_bytes"),
		frames:        request.Fields().ByName("frames"),
		payload:       response.Fields().ByName("payload"),
	}, nil
}

func main() {
	descriptors := flag.String("descriptors", "", "descriptor set holding echo.proto")
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (loopback)")
	flag.Parse()
	e, err := load(*descriptors)
	if err != nil {
		log.Fatalf("echo-go: %v", err)
	}
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("echo-go: %v", err)
	}
	server := grpc.NewServer()
	server.RegisterService(&grpc.ServiceDesc{
		ServiceName: "maka.bench.echo.v1.Echo",
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Unary", Handler: e.unary}},
		Streams: []grpc.StreamDesc{
			{StreamName: "Stream", Handler: e.stream, ServerStreams: true},
		},
		Metadata: "echo.proto",
	}, struct{}{})
	reflection.Register(server)
	fmt.Fprintf(os.Stderr, "echo-go listening on %s\n", listener.Addr())
	if err := server.Serve(listener); err != nil {
		log.Fatalf("echo-go: %v", err)
	}
}
