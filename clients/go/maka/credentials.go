package maka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// Options are the credential settings of a client. The zero value finds everything itself:
// the token is Token, else $MAKA_TOKEN, else the local credential DATA_DIR/credentials/
// local.token that the services create on first start (DATA_DIR is DataDir, else
// $MAKA_DATA_DIR, else the default data directory, ~/.local/share/maka-runtime on Linux).
// TLS is used when TLSCA (or $MAKA_TLS_CA) is set; TLSCert and TLSKey ($MAKA_TLS_CERT,
// $MAKA_TLS_KEY) add a client certificate (mutual TLS). Without TLS the connection is
// plaintext (loopback deployments).
type Options struct {
	Token   string
	DataDir string
	TLSCA   string
	TLSCert string
	TLSKey  string
}

// DefaultDataDir is the services' default data directory ($XDG_DATA_HOME/maka-runtime, or
// ~/.local/share/maka-runtime).
func DefaultDataDir() string {
	if base := os.Getenv("XDG_DATA_HOME"); base != "" {
		return filepath.Join(base, "maka-runtime")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "share", "maka-runtime")
}

// FindToken is the token a client sends (see Options); "" when there is none. A client that
// presents a certificate (TLSCert) does not look for the local credential: its certificate
// is its credential.
func FindToken(opts Options) string {
	if opts.Token != "" {
		return opts.Token
	}
	if token := os.Getenv("MAKA_TOKEN"); token != "" {
		return token
	}
	if envOr(opts.TLSCert, "MAKA_TLS_CERT") != "" {
		return ""
	}
	dir := opts.DataDir
	if dir == "" {
		dir = os.Getenv("MAKA_DATA_DIR")
	}
	if dir == "" {
		dir = DefaultDataDir()
	}
	data, err := os.ReadFile(filepath.Join(dir, "credentials", "local.token"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

type bearer struct{ token string }

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.token}, nil
}

// The services accept a token over plaintext on loopback; TLS is the listener's choice.
func (bearer) RequireTransportSecurity() bool { return false }

func envOr(value, name string) string {
	if value != "" {
		return value
	}
	return os.Getenv(name)
}

func dialOptions(opts Options) ([]grpc.DialOption, error) {
	dial := []grpc.DialOption{grpc.WithKeepaliveParams(Keepalive)}
	ca, cert, key := envOr(opts.TLSCA, "MAKA_TLS_CA"), envOr(opts.TLSCert, "MAKA_TLS_CERT"),
		envOr(opts.TLSKey, "MAKA_TLS_KEY")
	if ca == "" && cert == "" {
		dial = append(dial, grpc.WithTransportCredentials(insecure.NewCredentials()))
	} else {
		config := &tls.Config{MinVersion: tls.VersionTLS12}
		if ca != "" {
			pem, err := os.ReadFile(ca)
			if err != nil {
				return nil, fmt.Errorf("TLS CA: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, errors.New("TLS CA: no certificate in " + ca)
			}
			config.RootCAs = pool
		}
		if cert != "" {
			pair, err := tls.LoadX509KeyPair(cert, key)
			if err != nil {
				return nil, fmt.Errorf("TLS client certificate: %w", err)
			}
			config.Certificates = []tls.Certificate{pair}
		}
		dial = append(dial, grpc.WithTransportCredentials(credentials.NewTLS(config)))
	}
	if token := FindToken(opts); token != "" {
		dial = append(dial, grpc.WithPerRPCCredentials(bearer{token}))
	}
	return dial, nil
}

// ErrUnauthenticated is what AuthError wraps a call refused UNAUTHENTICATED in.
var ErrUnauthenticated = errors.New(
	"no valid credential: pass a token (Options.Token or MAKA_TOKEN) or use the local " +
		"credential of the services' data directory (Options.DataDir or MAKA_DATA_DIR)")

// ErrPermissionDenied is what AuthError wraps a call refused PERMISSION_DENIED in.
var ErrPermissionDenied = errors.New("the credential lacks the role this call needs")

// AuthError returns err wrapped in ErrUnauthenticated or ErrPermissionDenied (errors.Is) when
// a service refused the call for that reason, and err itself otherwise.
func AuthError(err error) error {
	switch status.Code(err) {
	case codes.Unauthenticated:
		return fmt.Errorf("%w (%v)", ErrUnauthenticated, err)
	case codes.PermissionDenied:
		return fmt.Errorf("%w (%v)", ErrPermissionDenied, err)
	}
	return err
}
