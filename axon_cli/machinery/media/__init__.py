"""machinery/media"""
