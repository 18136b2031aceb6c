/**
 * RespondToUserQuestionRequest answers a user question.
 */
export interface RespondToUserQuestionRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * The request id (from the UserQuestionRequest event).
     */
    'requestId'?: (string);
    /**
     * The answers (1 to 16, each at most 64 KiB; each one of the options when the question has
     * options).
     */
    'answers'?: (string)[];
}
/**
 * RespondToUserQuestionRequest answers a user question.
 */
export interface RespondToUserQuestionRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * The request id (from the UserQuestionRequest event).
     */
    'requestId': (string);
    /**
     * The answers (1 to 16, each at most 64 KiB; each one of the options when the question has
     * options).
     */
    'answers': (string)[];
}
