package maka

import (
	"sort"
	"strings"

	commonv1 "github.com/maka-runtime/maka-runtime/clients/go/gen/maka/common/v1"
)

// ReasonPrefix is the prefix of every value name of the reason registry
// (maka.common.v1.ErrorReason); the ErrorInfo reason a service sends has none.
const ReasonPrefix = "ERROR_REASON_"

// Reason is the ErrorInfo reason string of a registry value:
// Reason(commonv1.ErrorReason_ERROR_REASON_OPERATION_CONFLICT) is "OPERATION_CONFLICT".
// The zero value and numbers outside the registry give "".
func Reason(value commonv1.ErrorReason) string {
	name, ok := commonv1.ErrorReason_name[int32(value)]
	if !ok || value == commonv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
		return ""
	}
	return strings.TrimPrefix(name, ReasonPrefix)
}

// Reasons lists every reason a Maka Runtime service may send, sorted.
func Reasons() []string {
	reasons := make([]string, 0, len(commonv1.ErrorReason_name))
	for number := range commonv1.ErrorReason_name {
		if reason := Reason(commonv1.ErrorReason(number)); reason != "" {
			reasons = append(reasons, reason)
		}
	}
	sort.Strings(reasons)
	return reasons
}

// HasReason reports whether err is a failed call whose ErrorInfo carries the reason of value.
func HasReason(err error, value commonv1.ErrorReason) bool {
	info := ErrorInfo(err)
	return info != nil && Reason(value) != "" && info.GetReason() == Reason(value)
}
