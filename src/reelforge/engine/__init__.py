"""The shared machinery: reels, evaluation, rounds and autoplay."""
