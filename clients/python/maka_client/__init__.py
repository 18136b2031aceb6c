"""Python clients of Maka Runtime (the SDK grows here) and the local launcher."""
