// A minimal toolgate client in Go: opens a run, validates one call, prints
// the decision. Fail closed: any error, and any decision but ALLOW
// (UNSPECIFIED and unknown values included), exits non-zero.
//
//	go run . -target 127.0.0.1:50051 -manifest tools.json -output call.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	toolgatev1 "github.com/toolgate/toolgate/gen/go/toolgate/v1"
	"google.golang.org/grpc"
)

func main() {
	target := flag.String("target", "127.0.0.1:50051", "toolgate address")
	manifest := flag.String("manifest", "", "tool manifest (JSON file)")
	output := flag.String("output", "", "model output (native JSON file)")
	flag.Parse()
	if err := run(*target, *manifest, *output); err != nil {
		fmt.Fprintln(os.Stderr, "deny:", err)
		os.Exit(2)
	}
}

func run(target, manifestPath, outputPath string) error {
	manifest, err := os.ReadFile(manifestPath)
	if err != nil {
		return err
	}
	output, err := os.ReadFile(outputPath)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := grpc.DialContext(ctx, target, grpc.WithInsecure(), grpc.WithBlock())
	if err != nil {
		return err
	}
	defer conn.Close()
	gate := toolgatev1.NewToolGateClient(conn)

	snap, err := gate.CreateSnapshot(ctx, &toolgatev1.CreateSnapshotRequest{
		ManifestJson: string(manifest), Format: toolgatev1.ManifestFormat_MANIFEST_FORMAT_AUTO})
	if err != nil {
		return err
	}
	opened, err := gate.OpenRun(ctx, &toolgatev1.OpenRunRequest{
		SnapshotId: snap.SnapshotId, Model: "go-example"})
	if err != nil {
		return err
	}
	defer gate.CloseRun(ctx, &toolgatev1.CloseRunRequest{
		RunId: opened.RunId, RunToken: opened.RunToken})

	resp, err := gate.ValidateToolCall(ctx, &toolgatev1.ValidateToolCallRequest{
		RunId: opened.RunId, RunToken: opened.RunToken,
		ModelOutput: &toolgatev1.ValidateToolCallRequest_NativeJson{NativeJson: string(output)}})
	if err != nil {
		return err
	}
	fmt.Println(resp.Decision.String())
	for _, c := range resp.Calls {
		fmt.Printf("call %s %s\n", c.Name, c.ArgumentsJson)
	}
	for _, v := range resp.Violations {
		fmt.Printf("violation %s %s %s\n", v.Code, v.Pointer, v.Keyword)
	}
	if resp.Decision != toolgatev1.Decision_DECISION_ALLOW {
		os.Exit(1) // REJECT, NEEDS_APPROVAL, STOP, UNSPECIFIED or unknown
	}
	return nil
}
