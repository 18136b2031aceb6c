/**
 * UserQuestionRequest asks the user a question; answer it with RespondToUserQuestion.
 */
export interface UserQuestionRequest {
    /**
     * The request id.
     */
    'requestId'?: (string);
    /**
     * The question.
     */
    'question'?: (string);
    /**
     * The allowed answers (empty: any answer).
     */
    'options'?: (string)[];
}
/**
 * UserQuestionRequest asks the user a question; answer it with RespondToUserQuestion.
 */
export interface UserQuestionRequest__Output {
    /**
     * The request id.
     */
    'requestId': (string);
    /**
     * The question.
     */
    'question': (string);
    /**
     * The allowed answers (empty: any answer).
     */
    'options': (string)[];
}
