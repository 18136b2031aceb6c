/**
 * DeleteSessionResponse has no fields.
 */
export interface DeleteSessionResponse {
}
/**
 * DeleteSessionResponse has no fields.
 */
export interface DeleteSessionResponse__Output {
}
