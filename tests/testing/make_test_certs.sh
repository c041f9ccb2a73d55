#!/bin/bash
# Writes a throw-away PKI into DIR for the TLS tests, with the openssl CLI:
#   ca.crt/ca.key            the CA the server and the good client trust
#   server.crt/server.key    signed by ca, SAN localhost and 127.0.0.1
#   client.crt/client.key    signed by ca, for clientAuth
#   approver.crt/approver.key  signed by ca, for clientAuth, SAN
#                            DNS:approver.example (an approver identity)
#   other_ca.crt/other_ca.key, other_client.crt/other_client.key
#                            an unrelated CA and a client cert it signed
set -euo pipefail
dir=$1
cd "$dir"

newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

ca() {
  newkey "$1.key"
  openssl req -x509 -new -key "$1.key" -out "$1.crt" -days 2 -subj "/CN=$1" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

# leaf NAME CA EXTENSIONS
leaf() {
  newkey "$1.key"
  openssl req -new -key "$1.key" -out "$1.csr" -subj "/CN=$1" 2>/dev/null
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial \
    -out "$1.crt" -days 2 -extfile "$1.ext" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

ca ca
ca other_ca
leaf server ca "subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth"
leaf client ca "extendedKeyUsage=clientAuth"
leaf approver ca "subjectAltName=DNS:approver.example
extendedKeyUsage=clientAuth"
leaf other_client other_ca "extendedKeyUsage=clientAuth"
