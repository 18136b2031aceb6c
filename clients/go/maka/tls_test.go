package maka_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	resourcev1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/resource/v1"
	"github.com/maka-runtime/maka-runtime/clients/go/internal/servicetest"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

// issue writes a certificate (signed by parent, or self-signed) and its key under dir.
func issue(t *testing.T, dir, name string, template *x509.Certificate, parent *x509.Certificate,
	parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = template, key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key, certPath, keyPath
}

func TestTLSFromGo(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ca, caKey, caPath, _ := issue(t, dir, "ca", &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "go test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}, nil, nil)
	_, _, serverCert, serverKey := issue(t, dir, "server", &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature,
	}, ca, caKey)
	_, _, clientCert, clientKey := issue(t, dir, "gopher", &x509.Certificate{
		SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "gopher"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature,
	}, ca, caKey)

	t.Setenv("MAKA_TOKEN", "") // the certificate is the only credential
	resourceAddr := servicetest.Start(t, "maka_runtime.resource.server", filepath.Join(dir, "data"),
		"--standalone", "--tls-cert", serverCert, "--tls-key", serverKey, "--tls-client-ca", caPath)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	client, err := maka.DialWith(resourceAddr, resourceAddr, maka.Options{
		TLSCA: caPath, TLSCert: clientCert, TLSKey: clientKey})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	info, err := client.Resource.GetServerInfo(ctx, &resourcev1.GetServerInfoRequest{})
	if err != nil {
		t.Fatalf("over mutual TLS: %v", err)
	}
	if info.GetAuthMode() != "mtls+token" {
		t.Fatalf("auth mode %q, want mtls+token", info.GetAuthMode())
	}
}
