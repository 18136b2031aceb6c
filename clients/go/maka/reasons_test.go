package maka_test

import (
	"testing"

	commonv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/common/v1"
	"github.com/maka-runtime/maka-runtime/clients/go/maka"
)

func TestReasonNamesComeFromTheRegistry(t *testing.T) {
	if got := maka.Reason(commonv1.ErrorReason_ERROR_REASON_OPERATION_CONFLICT); got != "OPERATION_CONFLICT" {
		t.Fatalf("Reason(OPERATION_CONFLICT) = %q", got)
	}
	if got := maka.Reason(commonv1.ErrorReason_ERROR_REASON_UNSPECIFIED); got != "" {
		t.Fatalf("Reason(UNSPECIFIED) = %q, want empty", got)
	}
	reasons := maka.Reasons()
	if len(reasons) != len(commonv1.ErrorReason_name)-1 {
		t.Fatalf("Reasons() = %v: not every registry value but the zero one", reasons)
	}
	for _, reason := range reasons {
		if commonv1.ErrorReason_value[maka.ReasonPrefix+reason] == 0 {
			t.Fatalf("%q is not in the registry", reason)
		}
	}
}
