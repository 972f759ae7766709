"""The adversarial suite of issue 21: each attack planted for real and judged by its effect."""
