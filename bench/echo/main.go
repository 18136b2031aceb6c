// Command echo is the grpc-go baseline of the benchmarks: it serves maka.bench.echo.v1.Echo
// (echo.proto) and, for the replay baseline, every unary method of the product's services,
// all from the descriptor set passed with -descriptors (echo.proto and the product's files,
// with their imports), with reflection over that set, on loopback, and logs
// "echo-go listening on HOST:PORT" once it serves.
//
// A product method answers each call with the serialized response Echo.Keep kept for it,
// sent as it is, after parsing the request as the method's request message (dynamicpb); a
// method with nothing kept, or not in the set, ends UNIMPLEMENTED.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the proto codec that kept wraps
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/reflection"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

const echoService = "maka.bench.echo.v1.Echo"

// kept is a response already serialized: the codec sends it as it is.
type kept []byte

// codec is the proto codec, except that a kept response is written without marshalling.
type codec struct{ proto encoding.CodecV2 }

func (c codec) Marshal(v any) (mem.BufferSlice, error) {
	if answer, ok := v.(kept); ok {
		return mem.BufferSlice{mem.SliceBuffer(answer)}, nil
	}
	return c.proto.Marshal(v)
}

func (c codec) Unmarshal(data mem.BufferSlice, v any) error { return c.proto.Unmarshal(data, v) }

func (c codec) Name() string { return c.proto.Name() }

type echo struct {
	request, response              protoreflect.MessageDescriptor
	keepRequest, keepResponse      protoreflect.MessageDescriptor
	responseBytes, frames, payload protoreflect.FieldDescriptor
	// methods are the replayed unary methods by full path; answers their kept responses.
	methods map[string]protoreflect.MethodDescriptor
	answers sync.Map
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

func (e *echo) keep(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	req := dynamicpb.NewMessage(e.keepRequest)
	if err := dec(req); err != nil {
		return nil, err
	}
	fields := e.keepRequest.Fields()
	path := req.Get(fields.ByName("method")).String()
	response := req.Get(fields.ByName("response")).Bytes()
	method, ok := e.methods[path]
	if !ok {
		return nil, status.Errorf(codes.NotFound,
			"no unary method %q in the served descriptors (a path such as "+
				"/maka.kernel.v1.KernelService/GetSession)", path)
	}
	if err := proto.Unmarshal(response, dynamicpb.NewMessage(method.Output())); err != nil {
		return nil, status.Errorf(codes.InvalidArgument,
			"response is not a %s: %v", method.Output().FullName(), err)
	}
	e.answers.Store(path, kept(append([]byte(nil), response...)))
	return dynamicpb.NewMessage(e.keepResponse), nil
}

// replay answers one product method with its kept response.
func (e *echo) replay(path string, method protoreflect.MethodDescriptor) grpc.MethodHandler {
	return func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		req := dynamicpb.NewMessage(method.Input())
		if err := dec(req); err != nil {
			return nil, err
		}
		answer, ok := e.answers.Load(path)
		if !ok {
			return nil, status.Errorf(codes.Unimplemented, "no answer kept for %s (Echo.Keep keeps one)", path)
		}
		return answer, nil
	}
}

// replayed is every service of files besides the echo and gRPC's own, with its unary methods.
func (e *echo) replayed(files *protoregistry.Files) []*grpc.ServiceDesc {
	var descs []*grpc.ServiceDesc
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		for i := 0; i < fd.Services().Len(); i++ {
			service := fd.Services().Get(i)
			name := string(service.FullName())
			if name == echoService || strings.HasPrefix(name, "grpc.") {
				continue
			}
			desc := &grpc.ServiceDesc{ServiceName: name, HandlerType: (*any)(nil), Metadata: fd.Path()}
			for j := 0; j < service.Methods().Len(); j++ {
				method := service.Methods().Get(j)
				if method.IsStreamingClient() || method.IsStreamingServer() {
					continue
				}
				path := fmt.Sprintf("/%s/%s", name, method.Name())
				e.methods[path] = method
				desc.Methods = append(desc.Methods,
					grpc.MethodDesc{MethodName: string(method.Name()), Handler: e.replay(path, method)})
			}
			descs = append(descs, desc)
		}
		return true
	})
	return descs
}

func load(path string) (*echo, *protoregistry.Files, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	set := &descriptorpb.FileDescriptorSet{}
	if err := proto.Unmarshal(raw, set); err != nil {
		return nil, nil, err
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		return nil, nil, err
	}
	find := func(name string) protoreflect.MessageDescriptor {
		d, findErr := files.FindDescriptorByName(protoreflect.FullName(name))
		if findErr != nil {
			err = findErr
			return nil
		}
		return d.(protoreflect.MessageDescriptor)
	}
	e := &echo{
		request:      find("maka.bench.echo.v1.EchoRequest"),
		response:     find("maka.bench.echo.v1.EchoResponse"),
		keepRequest:  find("maka.bench.echo.v1.KeepRequest"),
		keepResponse: find("maka.bench.echo.v1.KeepResponse"),
		methods:      map[string]protoreflect.MethodDescriptor{},
	}
	if err != nil {
		return nil, nil, err
	}
	e.responseBytes = e.request.Fields().ByName("response_bytes")
	e.frames = e.request.Fields().ByName("frames")
	e.payload = e.response.Fields().ByName("payload")
	return e, files, nil
}

func main() {
	descriptors := flag.String("descriptors", "", "descriptor set holding echo.proto and the product's files")
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (loopback)")
	flag.Parse()
	e, files, err := load(*descriptors)
	if err != nil {
		log.Fatalf("echo-go: %v", err)
	}
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("echo-go: %v", err)
	}
	server := grpc.NewServer(grpc.ForceServerCodecV2(codec{encoding.GetCodecV2("proto")}))
	server.RegisterService(&grpc.ServiceDesc{
		ServiceName: echoService,
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{
			{MethodName: "Unary", Handler: e.unary},
			{MethodName: "Keep", Handler: e.keep},
		},
		Streams: []grpc.StreamDesc{
			{StreamName: "Stream", Handler: e.stream, ServerStreams: true},
		},
		Metadata: "echo.proto",
	}, struct{}{})
	for _, desc := range e.replayed(files) {
		server.RegisterService(desc, struct{}{})
	}
	// Reflection answers from the set itself, so the product's files resolve as they do on
	// the product.
	options := reflection.ServerOptions{Services: server, DescriptorResolver: files}
	reflectionv1.RegisterServerReflectionServer(server, reflection.NewServerV1(options))
	reflectionv1alpha.RegisterServerReflectionServer(server, reflection.NewServer(options))
	fmt.Fprintf(os.Stderr, "echo-go listening on %s\n", listener.Addr())
	if err := server.Serve(listener); err != nil {
		log.Fatalf("echo-go: %v", err)
	}
}
