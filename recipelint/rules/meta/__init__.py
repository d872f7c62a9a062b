"""Rules about recipelint itself: facts it could not establish."""
