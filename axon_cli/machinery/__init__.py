"""machinery"""
