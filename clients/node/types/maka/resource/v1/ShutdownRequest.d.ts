/**
 * ShutdownRequest has no fields.
 */
export interface ShutdownRequest {
}
/**
 * ShutdownRequest has no fields.
 */
export interface ShutdownRequest__Output {
}
