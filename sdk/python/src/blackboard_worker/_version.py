__version__ = "0.1.0"
SDK_NAME = "blackboard-python"
