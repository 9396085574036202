"""Validation against published measurements: the case reader (cases) and one evaluator per kind (training, inference, tts, collective)."""
